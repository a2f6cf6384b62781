import { startWirehook } from '../support/harness.ts';
import { describeListenSuite } from './listen.test-suite.ts';

describeListenSuite('embedded', () => startWirehook());
