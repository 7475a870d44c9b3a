// What `doctor` may spend of a token's quota, in a module of its own: the command's help says it, and its --help
// loads this alone, not the diagnosis.

/** Doctor's budget: list, competitors, stats, one report and reads of it until it is ready, then a scan listed and read. */
export const DOCTOR_MAX_REQUESTS = 12;
