/**
 * The text bench/knowledge.ts stores and searches: seeded, from a fixed vocabulary, shaped like a
 * real knowledge base's chunks rather than like uniform noise.
 *
 * - Vocabulary: the 122 WORDS of synthetic-text.ts (everyday English first, then the vocabulary of
 *   agent workloads) followed by pronounceable pseudo-words made of two or three syllables, 8,000
 *   words in all, in a fixed order.
 * - Word frequencies follow Zipf's law (the word of rank r is drawn with weight 1/r), as in natural
 *   text: "the", "a", "of" fill a large share of every chunk, most words are rare.
 * - Topics: each content (a document of many chunks) has one of TOPICS topics, a set of
 *   TOPIC_WORDS mid-frequency words; a quarter of a chunk's words come from its topic. Chunks of one
 *   document share vocabulary, and a question about a topic resembles that topic's chunks more
 *   than the others.
 *
 * Uniform draws from 122 words would make every chunk contain most of the vocabulary: every
 * keyword query would match nearly every row, and every pair of vectors would be about equally
 * close, which no real corpus does.
 */
import { prng, WORDS } from "./synthetic-text.ts";

export const VOCABULARY_SIZE = 8000;
export const TOPICS = 200;
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

export const VOCABULARY = buildVocabulary();

/** Cumulative Zipf weights (rank r weighs 1/r), for drawing a word by binary search. */
const CUMULATIVE = (() => {
  const out = new Float64Array(VOCABULARY.length);
  let sum = 0;
  for (let r = 0; r < VOCABULARY.length; r++) out[r] = sum += 1 / (r + 1);
  for (let r = 0; r < out.length; r++) out[r]! /= sum;
  return out;
})();

function zipfWord(rand: () => number): string {
  const x = rand();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}

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

/** Phrases everyone writes (Zipf-popular), each topic's phrases, each content's own phrases. */
const COMMON_PHRASES = (() => {
  const rand = prng(31);
  return Array.from({ length: COMMON_PHRASE_COUNT }, () => phrase(rand, [], 0));
})();
const COMMON_CUMULATIVE = (() => {
  const out = new Float64Array(COMMON_PHRASES.length);
  let sum = 0;
  for (let r = 0; r < out.length; r++) out[r] = sum += 1 / (r + 1);
  for (let r = 0; r < out.length; r++) out[r]! /= sum;
  return out;
})();
const TOPIC_PHRASES: string[][][] = TOPIC_VOCABULARY.map((words, topic) => {
  const rand = prng(2_000_003 + topic);
  return Array.from({ length: TOPIC_PHRASE_COUNT }, () => phrase(rand, words, 0.6));
});
function contentPhrases(seed: number, content: number): string[][] {
  const rand = prng(seed * 15_485_863 + content);
  const words = TOPIC_VOCABULARY[topicOf(seed, content)]!;
  // A document's own terms: its topic's words and names of its own (rare words).
  return Array.from({ length: CONTENT_PHRASE_COUNT }, () => phrase(rand, words, 0.7, (r) => (r() < 0.5 ? words[Math.floor(r() * words.length)]! : rareWord(r))));
}

function commonPhrase(rand: () => number): string[] {
  const x = rand();
  let lo = 0;
  let hi = COMMON_CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (COMMON_CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return COMMON_PHRASES[lo]!;
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
  // 60–100 words (about 400–650 characters): a small chunk of a document.
  return compose(rand, contentPhrases(seed, content), topicOf(seed, content), 60 + Math.floor(rand() * 41));
}

/** The topic of content `content` in corpus `seed`. */
export function topicOf(seed: number, content: number): number {
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
