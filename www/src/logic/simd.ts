/**
 * Whether this engine has WebAssembly SIMD (simd128), which the simulator's module is built
 * with (the Makefile's FULL_RUSTFLAGS: Chrome and Edge 91, Firefox 89, Safari 16.4 or later).
 * The probe is one function returning `i8x16.popcnt(i8x16.splat(0))`: an engine without SIMD
 * does not know its `v128` result type, so the module does not validate.
 */
const PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, // "\0asm", version 1
  1, 5, 1, 96, 0, 1, 123, // types: () -> v128
  3, 2, 1, 0, // one function of type 0
  10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11, // code: i32.const 0, i8x16.splat, i8x16.popcnt
]);

/** The one part of the `WebAssembly` global this needs (the page's pure modules see no DOM types). */
interface Validator {
  validate(bytes: Uint8Array): boolean;
}

export function hasWasmSimd(): boolean {
  const wasm = (globalThis as { WebAssembly?: Validator }).WebAssembly;
  try {
    return wasm !== undefined && wasm.validate(PROBE);
  } catch {
    return false;
  }
}
