import { describe, expect, it } from 'vitest';
import { isGrpcTarget } from './grpc-target.ts';

describe('isGrpcTarget', () => {
  it.each([
    '127.0.0.1:50051',
    'message-intake:50051',
    'wirehook-message-intake.wirehook.svc.cluster.local:50051',
    '[::1]:50051',
    'dns:///wirehook-message-intake-headless:50051',
    'dns:///10.0.0.7:50051',
    'ipv4:127.0.0.1:50051',
    'ipv4:127.0.0.1:50051,127.0.0.1:50061',
    'ipv6:[::1]:50051,[fd00::2]:50051',
  ])('takes %s', (target) => expect(isGrpcTarget(target)).toBe(true));

  it.each([
    '',
    'message-intake', // no port: grpc-js would pick 443
    'message-intake:0',
    'message-intake:65536',
    'http://message-intake:50051',
    'dns://message-intake:50051',
    'dns:///',
    'ipv4:',
    'ipv4:message-intake:50051',
    'ipv4:127.0.0.1:50051,',
    'ipv4:127.0.0.1:50051 127.0.0.1:50061',
    '127.0.0.1:50051,127.0.0.1:50061', // a list needs its scheme
    'ipv6:::1:50051',
    'message intake:50051',
  ])('refuses %j', (target) => expect(isGrpcTarget(target)).toBe(false));
});
