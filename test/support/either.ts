import * as Result from "effect/Result"

/**
 * Effect 3's Either, as the tests' assertions still read it: Effect 4's Result under the old
 * names (`isRight`, `left`).
 */
export type Either<A, E> = { readonly _tag: "Right"; readonly right: A } | { readonly _tag: "Left"; readonly left: E }

export const fromResult = <A, E>(result: Result.Result<A, E>): Either<A, E> =>
  Result.isSuccess(result) ? { _tag: "Right", right: result.success } : { _tag: "Left", left: result.failure }

export const isRight = <A, E>(either: Either<A, E>): either is { readonly _tag: "Right"; readonly right: A } =>
  either._tag === "Right"

export const isLeft = <A, E>(either: Either<A, E>): either is { readonly _tag: "Left"; readonly left: E } =>
  either._tag === "Left"
