// Deterministic synthetic data for the benchmarks: the same seed gives the same text every run.

/** Words drawn for synthetic messages: everyday English and the vocabulary of agent workloads. */
export const WORDS = (
  "the a of to and in is for on that with as this by be are from at or an it not have can will your " +
  "agent session storage database query index append run history message model token latency request " +
  "response user assistant system tool call result error retry schema migration table column row page " +
  "write read commit transaction journal checkpoint payload context memory knowledge vector search " +
  "summary report customer order invoice shipment delivery refund account balance payment policy " +
  "weather forecast temperature city travel flight hotel booking meeting calendar email draft reply " +
  "code function test build deploy release version branch merge review comment issue bug fix feature " +
  "price market stock trend analysis chart quarter revenue growth margin cost budget plan goal metric"
).split(" ");

/** A seeded pseudo-random generator (mulberry32): numbers in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A sentence of about `chars` characters from WORDS. */
export function sentence(rand: () => number, chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(rand() * WORDS.length)];
    out.push(word);
    length += word.length + 1;
  }
  const text = out.join(" ");
  return text[0].toUpperCase() + text.slice(1) + ".";
}
