// The JavaScript reference implementations of keybench's ids: Nano ID and
// Cuid2, each run with the random numbers (and for Cuid2 the clock, the
// counter and the fingerprint) given, so that keybench's own makes the same
// ids of the same inputs; and the reference's check of ids keybench made.
// Reads keybench's values as JSON on stdin, writes JSON on stdout.
import { customRandom, urlAlphabet } from "nanoid";
import { init, isCuid } from "@paralleldrive/cuid2";
import { readFileSync } from "node:fs";

const made = JSON.parse(readFileSync(0, "utf8"));

// A deterministic stream of 32-bit integers (xorshift), as the random
// numbers both sides are given.
function stream(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
}

const nanoids = [];
for (let seed = 1; seed <= 8; seed++) {
  const next = stream(seed * 7919);
  const bytes = Array.from({ length: 21 }, () => next() & 255);
  const id = customRandom(urlAlphabet, 21, (n) => Uint8Array.from(bytes.slice(0, n)))();
  nanoids.push({ random: Buffer.from(bytes).toString("hex"), id });
}

const cuids = [];
const realNow = Date.now;
for (let seed = 1; seed <= 8; seed++) {
  const next = stream(seed * 104729);
  const drawn = [];
  const rand = () => { const u = next(); drawn.push(u); return u / 0x100000000; };
  const ms = 1_700_000_000_000 + seed * 86_400_123;
  const count = seed * 1_000_003;
  const fingerprint = "fp" + seed.toString(36).repeat(10);
  Date.now = () => ms;
  const make = init({ random: rand, counter: () => count, fingerprint });
  const id = make();
  Date.now = realNow;
  cuids.push({ ms, count, fingerprint, random: drawn, id });
}

const out = {
  by: { nanoid: "nanoid 5.1.16 (customRandom with urlAlphabet)", cuid2: "@paralleldrive/cuid2 3.3.0 (init with the random numbers, clock, counter and fingerprint given)" },
  nanoid_encode: nanoids,
  cuid2_encode: cuids,
  cuid2_check: (made.cuid2 || []).map((id) => ({ id, is_cuid: isCuid(id) })),
  nanoid_check: (made.nanoid || []).map((id) => ({ id, url_alphabet: [...id].every((c) => urlAlphabet.includes(c)), length: id.length })),
};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
