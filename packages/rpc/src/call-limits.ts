// The gRPC calls' limits, apart from the code that makes the calls: what a bench's bare
// stand-in of the same hop (bench/floor/cluster-floor-process.ts) must match, without loading
// protobuf, the generated descriptors or tracing to read them.

/** The deadline of every call unless the client or the call says otherwise. */
export const DEFAULT_DEADLINE_MS = 5_000;
/** Most sends one SendBatch call carries (IntakeGrpcClient). */
export const MAX_BATCH_SENDS = 64;
/**
 * Most payload text (UTF-16 units, ≤ 3 bytes each in UTF-8) one SendBatch call carries, so a
 * call stays under grpc-js' 4 MiB message limit; a larger payload goes in a call of its own.
 */
export const MAX_BATCH_PAYLOAD_CHARS = 1_048_576;
