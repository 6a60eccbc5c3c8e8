// The virtual clock behind the playhead: play, pause, speed, scrub. Time is simulated
// milliseconds; at speed 1 one simulated second passes per real second. The run itself is
// already computed: playback only reveals it, so scrubbing back costs nothing.
//
// It ticks only while playing and while its figure is on screen (`visible`), and never under prefers-reduced-motion, where the playhead stays at the end.
//
// While a newer picture is being computed (`throttle(true)`: a run in the worker), the
// playhead keeps its pace but is drawn at most every THROTTLED_FRAME_MS: the frames of a
// picture about to be replaced competed with that run for the CPU. Measured in headless
// Chromium on the project's 2-core machine, 100,000 clients: the worker's simulation took
// a median 54 ms with the animation at 60 fps, 38-41 ms with it paused.

export interface PlaybackView {
  /** Called with the playhead's time whenever it moves. */
  render(tMs: number, endMs: number): void;
  /** Called when playing starts or stops. */
  playing(on: boolean): void;
}

/** The longest the playhead goes undrawn while a newer picture is being computed. */
export const THROTTLED_FRAME_MS = 100;

/** The frame source: requestAnimationFrame and cancelAnimationFrame on the page. Passed in,
 *  so this file has no DOM and its clock runs in tests by hand. */
export interface Frames {
  request(tick: (now: number) => void): number;
  cancel(id: number): void;
}

export class Playback {
  private readonly view: PlaybackView;
  private readonly frames: Frames;
  private endMs = 1;
  private tMs = 1;
  private speed = 1;
  private isPlaying = false;
  private onScreen = true;
  private frame = 0;
  private last = 0;
  private throttled = false;
  /** When the playhead was last drawn by a tick (the frame's timestamp). */
  private drawn = 0;
  readonly reducedMotion: boolean;

  constructor(view: PlaybackView, frames: Frames, reducedMotion: boolean) {
    this.view = view;
    this.frames = frames;
    this.reducedMotion = reducedMotion;
  }

  /** Whether the figure is on screen (its panel observes it): off screen, no ticks. */
  visible(on: boolean): void {
    this.onScreen = on;
    if (on && this.isPlaying) this.schedule();
  }

  get time(): number {
    return this.tMs;
  }
  get duration(): number {
    return this.endMs;
  }
  get active(): boolean {
    return this.isPlaying;
  }

  /** A new run: keeps the playhead's time (clamped) unless `restart`. */
  load(endMs: number, restart: boolean): void {
    this.endMs = Math.max(1, endMs);
    if (restart && !this.reducedMotion) {
      this.tMs = 0;
      this.play();
    } else {
      this.tMs = this.isPlaying ? Math.min(this.tMs, this.endMs) : this.endMs;
    }
    this.view.render(this.tMs, this.endMs);
  }

  setSpeed(speed: number): void {
    if (Number.isFinite(speed) && speed > 0) this.speed = speed;
  }

  play(): void {
    if (this.tMs >= this.endMs) this.tMs = 0;
    if (!this.isPlaying) {
      this.isPlaying = true;
      this.view.playing(true);
    }
    this.last = 0;
    this.schedule();
  }

  pause(): void {
    if (!this.isPlaying) return;
    this.isPlaying = false;
    this.frames.cancel(this.frame);
    this.frame = 0;
    this.view.playing(false);
  }

  toggle(): void {
    if (this.isPlaying) this.pause();
    else this.play();
  }

  /** A newer picture is (or no longer is) being computed: see the file's note. */
  throttle(on: boolean): void {
    this.throttled = on;
  }

  /** Scrubbing: pauses and moves the playhead. */
  seek(tMs: number): void {
    this.pause();
    this.tMs = Math.min(this.endMs, Math.max(0, tMs));
    this.view.render(this.tMs, this.endMs);
  }

  private schedule(): void {
    if (this.frame !== 0 || !this.onScreen) return;
    this.frame = this.frames.request((now) => this.tick(now));
  }

  private tick(now: number): void {
    this.frame = 0;
    if (!this.isPlaying) return;
    // The first frame after a start or a pause only sets the reference time.
    const dt = this.last === 0 ? 0 : Math.min(100, now - this.last);
    this.last = now;
    this.tMs = Math.min(this.endMs, this.tMs + dt * this.speed);
    const end = this.tMs >= this.endMs;
    if (!this.throttled || end || now - this.drawn >= THROTTLED_FRAME_MS) {
      this.drawn = now;
      this.view.render(this.tMs, this.endMs);
    }
    if (end) {
      this.isPlaying = false;
      this.view.playing(false);
      return;
    }
    if (this.onScreen) this.schedule();
    else this.last = 0;
  }
}
