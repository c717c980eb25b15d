/**
 * The text bench/knowledge.ts stores and searches: seeded, from a fixed vocabulary, shaped like a
 * real knowledge base's chunks rather than like uniform noise.
 *
 * - Vocabulary: the 122 WORDS of synthetic-text.ts (everyday English first, then the vocabulary of
 *   agent workloads) followed by pronounceable pseudo-words made of two or three syllables, 8,000
 *   words in all, in a fixed order.
 * - Word frequencies follow Zipf's law (the word of rank r is drawn with weight 1/r), as in natural
 *   text: "the", "a", "of" fill a large share of every text, most words are rare.
 * - Phrases: texts are sequences of 2–5-word phrases, because real text repeats its terms and the
 *   hashing embedder's features are words and word pairs. There are COMMON_PHRASE_COUNT common
 *   phrases (Zipf-popular), TOPIC_PHRASE_COUNT per topic (TOPICS topics, each with TOPIC_WORDS
 *   mid-frequency words of its own) and CONTENT_PHRASE_COUNT per content (its topic's words and
 *   rare words of its own, as a document's names and terms).
 * - A chunk takes CONTENT_SHARE of its phrases from its content, TOPIC_SHARE from its content's
 *   topic and the rest from the common pool; a question is made the same way for one stored
 *   content, so it resembles that content's chunks more than the others.
 *
 * Words drawn one by one would make nearly every word pair unique to its text (noise in half of
 * every vector's features), and uniform draws from 122 words would make every keyword query match
 * nearly every row: no real corpus behaves either way.
 */
import { prng, WORDS } from "./synthetic-text.ts";

const VOCABULARY_SIZE = 8000;
const TOPICS = 200;
const TOPIC_WORDS = 40;
/** Topic words are drawn from these ranks of the vocabulary (neither stop words nor hapaxes). */
const TOPIC_RANKS: [number, number] = [60, 3000];
/** Shares of a text's phrases from its content's own phrases and from its topic's; the rest are common phrases. */
const CONTENT_SHARE = 0.3;
const TOPIC_SHARE = 0.3;
const COMMON_PHRASE_COUNT = 5000;
const TOPIC_PHRASE_COUNT = 80;
const CONTENT_PHRASE_COUNT = 12;

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa", "de", "fu", "gi", "ho", "ja", "ke", "li", "mo", "nu", "po", "ra", "si", "tu", "ve", "wa", "bo", "da", "fe", "go", "lu"];

function buildVocabulary(): string[] {
  const known = new Set(WORDS);
  const pseudo: string[] = [];
  for (const a of SYLLABLES) for (const b of SYLLABLES) pseudo.push(a + b);
  for (const a of SYLLABLES) for (const b of SYLLABLES) for (const c of SYLLABLES) pseudo.push(a + b + c);
  // A fixed shuffle, so two- and three-syllable words mix across the frequency ranks.
  const rand = prng(7);
  for (let i = pseudo.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pseudo[i], pseudo[j]] = [pseudo[j]!, pseudo[i]!];
  }
  return [...WORDS, ...pseudo.filter((w) => !known.has(w))].slice(0, VOCABULARY_SIZE);
}

const VOCABULARY = buildVocabulary();

/** Cumulative Zipf weights of `n` ranks (rank r weighs 1/r), for drawing a rank by binary search. */
function zipfCumulative(n: number): Float64Array {
  const out = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) out[r] = sum += 1 / (r + 1);
  for (let r = 0; r < n; r++) out[r]! /= sum;
  return out;
}

/** A rank drawn from cumulative weights. */
function drawRank(cumulative: Float64Array, rand: () => number): number {
  const x = rand();
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const WORD_WEIGHTS = zipfCumulative(VOCABULARY.length);
const zipfWord = (rand: () => number) => VOCABULARY[drawRank(WORD_WEIGHTS, rand)]!;

/** Each topic's words, fixed by its number. */
const TOPIC_VOCABULARY: string[][] = Array.from({ length: TOPICS }, (_, topic) => {
  const rand = prng(1_000_003 + topic);
  const words = new Set<string>();
  while (words.size < TOPIC_WORDS) words.add(VOCABULARY[TOPIC_RANKS[0] + Math.floor(rand() * (TOPIC_RANKS[1] - TOPIC_RANKS[0]))]!);
  return [...words];
});

const rareWord = (rand: () => number) => VOCABULARY[TOPIC_RANKS[0] + Math.floor(rand() * (VOCABULARY.length - TOPIC_RANKS[0]))]!;

/** A phrase of 2–5 words: each word from `own` with probability `share`, else Zipf over the vocabulary. */
function phrase(rand: () => number, own: readonly string[], share: number, pick = (r: () => number) => own[Math.floor(r() * own.length)]!): string[] {
  return Array.from({ length: 2 + Math.floor(rand() * 4) }, () => (own.length > 0 && rand() < share ? pick(rand) : zipfWord(rand)));
}

/** Phrases everyone writes, drawn by popularity (Zipf over their order). */
const COMMON_PHRASES = (() => {
  const rand = prng(31);
  return Array.from({ length: COMMON_PHRASE_COUNT }, () => phrase(rand, [], 0));
})();
const COMMON_WEIGHTS = zipfCumulative(COMMON_PHRASE_COUNT);
const commonPhrase = (rand: () => number) => COMMON_PHRASES[drawRank(COMMON_WEIGHTS, rand)]!;

/** Each topic's phrases: mostly its own words. */
const TOPIC_PHRASES: string[][][] = TOPIC_VOCABULARY.map((words, topic) => {
  const rand = prng(2_000_003 + topic);
  return Array.from({ length: TOPIC_PHRASE_COUNT }, () => phrase(rand, words, 0.6));
});
/** A content's own phrases: its topic's words and names of its own (rare words). */
function contentPhrases(seed: number, content: number): string[][] {
  const rand = prng(seed * 15_485_863 + content);
  const words = TOPIC_VOCABULARY[topicOf(seed, content)]!;
  return Array.from({ length: CONTENT_PHRASE_COUNT }, () => phrase(rand, words, 0.7, (r) => (r() < 0.5 ? words[Math.floor(r() * words.length)]! : rareWord(r))));
}

/** Phrases until `words` words: a content phrase, a topic phrase or a common one. */
function compose(rand: () => number, own: readonly string[][], topic: number, words: number): string {
  const out: string[] = [];
  while (out.length < words) {
    const x = rand();
    const next = x < CONTENT_SHARE ? own[Math.floor(rand() * own.length)]! : x < CONTENT_SHARE + TOPIC_SHARE ? TOPIC_PHRASES[topic]![Math.floor(rand() * TOPIC_PHRASE_COUNT)]! : commonPhrase(rand);
    out.push(...next);
  }
  const text = out.join(" ");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** Chunk `index` (0-based) of a corpus: its content (document) is index / perContent, on that content's topic. */
export function corpusChunk(seed: number, index: number, perContent: number): string {
  const content = Math.floor(index / perContent);
  const rand = prng(seed * 1_000_003 + index);
  // 60–100 words (about 500 characters): a small chunk of a document.
  return compose(rand, contentPhrases(seed, content), topicOf(seed, content), 60 + Math.floor(rand() * 41));
}

/** The topic of content `content` in corpus `seed`. */
function topicOf(seed: number, content: number): number {
  return Math.floor(prng(seed * 7919 + content)() * TOPICS);
}

/** `count` questions of 6–12 words, each about one of the `contents` contents of corpus `corpusSeed`, from a seed of their own. */
export function queryTexts(seed: number, count: number, corpusSeed: number, contents: number): string[] {
  const rand = prng(seed);
  return Array.from({ length: count }, () => {
    const content = Math.floor(rand() * contents);
    return compose(rand, contentPhrases(corpusSeed, content), topicOf(corpusSeed, content), 6 + Math.floor(rand() * 7));
  });
}
