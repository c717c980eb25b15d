/**
 * Validates the hand-written retrieval set in test/fixtures/knowledge-retrieval: its shape, its
 * sizes and that every labelled answer exists. It checks the fixture's format, not any search.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

interface RetrievalDocument {
  id: string;
  title: string;
  text: string;
}

interface RetrievalQuestion {
  id: string;
  question: string;
  answers: string[];
}

const dir = new URL("../fixtures/knowledge-retrieval/", import.meta.url);
const documents = JSON.parse(readFileSync(new URL("documents.json", dir), "utf8")) as RetrievalDocument[];
const questions = JSON.parse(readFileSync(new URL("questions.json", dir), "utf8")) as RetrievalQuestion[];

const words = (text: string): number => text.split(/\s+/).filter((word) => word.length > 0).length;
/** Sentences end in . ? or ! followed by whitespace or the end (the texts avoid abbreviations, so this is exact). */
const sentences = (text: string): number => text.split(/(?<=[.?!])\s+/).filter((part) => part.trim().length > 0).length;

describe("knowledge retrieval set", () => {
  it("has exactly 100 documents with unique ids d001..d100, titles and 40-120 word texts of 2-5 sentences", () => {
    expect(documents).toHaveLength(100);
    expect(documents.map((d) => d.id)).toEqual(Array.from({ length: 100 }, (_, i) => `d${String(i + 1).padStart(3, "0")}`));
    expect(new Set(documents.map((d) => d.title)).size).toBe(100);
    for (const doc of documents) {
      expect(Object.keys(doc).sort(), doc.id).toEqual(["id", "text", "title"]);
      expect(doc.title.trim().length, doc.id).toBeGreaterThan(0);
      expect(words(doc.text), `${doc.id} word count`).toBeGreaterThanOrEqual(40);
      expect(words(doc.text), `${doc.id} word count`).toBeLessThanOrEqual(120);
      expect(sentences(doc.text), `${doc.id} sentence count`).toBeGreaterThanOrEqual(2);
      expect(sentences(doc.text), `${doc.id} sentence count`).toBeLessThanOrEqual(5);
      expect(doc.text, doc.id).toMatch(/[.?!]$/);
    }
  });

  it("has exactly 30 questions with unique ids q01..q30 and 1-2 distinct answers that exist", () => {
    const ids = new Set(documents.map((d) => d.id));
    expect(questions).toHaveLength(30);
    expect(questions.map((q) => q.id)).toEqual(Array.from({ length: 30 }, (_, i) => `q${String(i + 1).padStart(2, "0")}`));
    expect(new Set(questions.map((q) => q.question)).size).toBe(30);
    for (const q of questions) {
      expect(Object.keys(q).sort(), q.id).toEqual(["answers", "id", "question"]);
      expect(q.question.trim().length, q.id).toBeGreaterThan(0);
      expect(q.answers.length, q.id).toBeGreaterThanOrEqual(1);
      expect(q.answers.length, q.id).toBeLessThanOrEqual(2);
      expect(new Set(q.answers).size, q.id).toBe(q.answers.length);
      for (const answer of q.answers) expect(ids.has(answer), `${q.id} → ${answer}`).toBe(true);
    }
  });
});
