// The history branch's defaults: constants alone, so that a command's --help can name them without loading git's work.

/** The branch of the history, unless told otherwise. */
export const DEFAULT_HISTORY_BRANCH = 'reports-history';
/** A year of comparison plus the month being reported. */
export const DEFAULT_HISTORY_KEEP = 13;
