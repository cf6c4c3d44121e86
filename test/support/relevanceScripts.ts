import type { Made, Target } from "../bench/relevanceQueries.js"

/** What each class of test/bench/relevanceScripts.ts claims of its query, checked against its target. */
const latinWords = (text: string) => /^[a-z ]+$/.test(text) && text.trim() === text && !text.includes("  ")

export const SCRIPT_PROPERTIES: Record<string, (made: Made, target: Target) => boolean> = {
  "Han title by pinyin": (made, target) => /\p{Script=Han}/u.test(target.title) && !/\p{Script=Han}/u.test(made.text),
  "Han title by pinyin joined": (made, target) => /\p{Script=Han}/u.test(target.title) && !/\p{Script=Han}/u.test(made.text),
  "Han title by pinyin typed": (made, target) => /\p{Script=Han}/u.test(target.title) && !/\p{Script=Han}/u.test(made.text),
  "Tamil title romanised": (made, target) => /\p{Script=Tamil}/u.test(target.title) && !/\p{Script=Tamil}/u.test(made.text),
  "Tamil title, second spelling": (made, target) => /\p{Script=Tamil}/u.test(target.title) && !/\p{Script=Tamil}/u.test(made.text),
  "Malay title with short forms": (made, target) => latinWords(made.text) && made.text !== target.folded &&
    made.text.split(" ").length === target.folded.split(" ").length,
  "whole word before prefix": (made, target) => made.text === target.folded
}
