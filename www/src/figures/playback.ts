// The virtual clock behind the playhead: play, pause, speed, scrub. Time is simulated
// milliseconds; at speed 1 one simulated second passes per real second. The run itself is
// already computed: playback only reveals it, so scrubbing back costs nothing.
//
// It ticks only while playing and while its figure is on screen (IntersectionObserver),
// and never under prefers-reduced-motion, where the playhead stays at the end.

export interface PlaybackView {
  /** Called with the playhead's time whenever it moves. */
  render(tMs: number, endMs: number): void;
  /** Called when playing starts or stops. */
  playing(on: boolean): void;
}

export class Playback {
  private readonly view: PlaybackView;
  private endMs = 1;
  private tMs = 1;
  private speed = 1;
  private isPlaying = false;
  private onScreen = true;
  private frame = 0;
  private last = 0;
  readonly reducedMotion: boolean;

  constructor(view: PlaybackView, target: Element, reducedMotion: boolean) {
    this.view = view;
    this.reducedMotion = reducedMotion;
    if ("IntersectionObserver" in window) {
      new IntersectionObserver((entries) => {
        this.onScreen = entries.some((e) => e.isIntersecting);
        if (this.onScreen && this.isPlaying) this.schedule();
      }).observe(target);
    }
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
    if (this.reducedMotion) return;
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
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.view.playing(false);
  }

  toggle(): void {
    if (this.isPlaying) this.pause();
    else this.play();
  }

  /** Scrubbing: pauses and moves the playhead. */
  seek(tMs: number): void {
    this.pause();
    this.tMs = Math.min(this.endMs, Math.max(0, tMs));
    this.view.render(this.tMs, this.endMs);
  }

  private schedule(): void {
    if (this.frame !== 0 || !this.onScreen) return;
    this.frame = requestAnimationFrame((now) => this.tick(now));
  }

  private tick(now: number): void {
    this.frame = 0;
    if (!this.isPlaying) return;
    // The first frame after a start or a pause only sets the reference time.
    const dt = this.last === 0 ? 0 : Math.min(100, now - this.last);
    this.last = now;
    this.tMs = Math.min(this.endMs, this.tMs + dt * this.speed);
    this.view.render(this.tMs, this.endMs);
    if (this.tMs >= this.endMs) {
      this.isPlaying = false;
      this.view.playing(false);
      return;
    }
    if (this.onScreen) this.schedule();
    else this.last = 0;
  }
}
