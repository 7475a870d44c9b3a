// The preview's state: the setup its pages are made with (or why there is none since the last reload), its version
// and when it was made. Only `reload` changes it, one reload at a time, in order: the last change always wins.
import type { Config } from '../config/schema.js';
import type { Branding } from '../report/model.js';
import type { HtmlRenderer } from '../render/html.js';
import { describeProblem } from './page.js';

/** What the page is made with; replaced whole when a watched file changes. */
export interface PreviewSetup {
  config: Config;
  renderer: HtmlRenderer;
  branding: Branding;
}

export interface PreviewStateOptions {
  /** Makes the setup again from the files (the config, the template folder); throws what is wrong with them. */
  makeSetup: () => Promise<PreviewSetup>;
  /** Told the new version after every reload, whether the setup could be made or not. */
  onReload: (version: number) => void;
  clock: () => Date;
  log: (line: string) => void;
}

export class PreviewState {
  #setup: PreviewSetup | null;
  /** What was wrong with the files at the last reload, while there is no setup. */
  #setupError: unknown = null;
  /** How many times the setup was made, the first one included; each one reloads the pages open. */
  #version = 1;
  #reloadedAt: Date;
  #reloading: Promise<void> = Promise.resolve();
  readonly #options: PreviewStateOptions;

  constructor(first: PreviewSetup, options: PreviewStateOptions) {
    this.#setup = first;
    this.#options = options;
    this.#reloadedAt = options.clock();
  }

  get version(): number {
    return this.#version;
  }

  get reloadedAt(): Date {
    return this.#reloadedAt;
  }

  /** The setup, or null while the files are broken. */
  get setup(): PreviewSetup | null {
    return this.#setup;
  }

  /** The setup to render with; throws what is wrong with the files when there is none. */
  renderSetup(): PreviewSetup {
    if (this.#setup === null) throw this.#setupError;
    return this.#setup;
  }

  /** Makes the setup again after the ones asked before, then counts a version and tells the pages. */
  reload(reason: string): Promise<void> {
    const { makeSetup, onReload, clock, log } = this.#options;
    this.#reloading = this.#reloading.then(async () => {
      try {
        this.#setup = await makeSetup();
        this.#setupError = null;
        log(`Reloaded (${reason}).`);
      } catch (error) {
        this.#setup = null;
        this.#setupError = error;
        log(`Reloaded (${reason}), but the report cannot be rendered:\n${describeProblem(error)}`);
      }
      this.#version += 1;
      this.#reloadedAt = clock();
      onReload(this.#version);
    });
    return this.#reloading;
  }

  /** Resolves once the reloads asked so far are done. */
  settled(): Promise<void> {
    return this.#reloading.catch(() => undefined);
  }
}
