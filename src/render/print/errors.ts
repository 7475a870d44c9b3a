// The printer's errors, apart from the printer: the batch tells a browser that went away from a report that
// failed without loading Chromium's driver.
import { ConfigError, GeoReportsError } from '../../errors.js';

/** A report could not be printed; the printer itself stays usable. */
export class PdfPrintError extends GeoReportsError {}
/** A report took longer than the per-report limit to load and print. */
export class PdfTimeoutError extends PdfPrintError {}
/** The browser went away (crashed, or the connection to a remote one was lost) while a report was printing. */
export class BrowserLostError extends PdfPrintError {}
/** Chromium could not be started. */
export class BrowserLaunchError extends GeoReportsError {}
/** The remote browser could not be reached. */
export class BrowserConnectError extends GeoReportsError {}
/** The browser would not start or print a blank page before the run: exit 2, the machine needs a fix first. */
export class BrowserStartError extends ConfigError {}
