/** The building blocks of every schema here: the protocol's ids, cards, times and integers, each written once. */
import { Type as T, type TLiteral, type TSchema, type UnsafeOptions } from "@sinclair/typebox";

/** Strict objects (no unknown fields): real traffic checked against them catches any drift between docs and server. */
export const strict = <P extends Record<string, TSchema>>(properties: P, description?: string) =>
  T.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
export const Card = T.String({ pattern: "^[2-9TJQKA][cdhs]$", description: "Rank 23456789TJQKA, then suit cdhs" });
/**
 * Two hole cards. The JSON Schema is an array of exactly two (a 2020-12 `prefixItems` tuple reads
 * worse in every validator), while the TypeScript type is the pair `[Card, Card]` bots destructure.
 */
export const CardPair = (options: UnsafeOptions = {}) => T.Unsafe<[string, string]>(T.Array(Card, { minItems: 2, maxItems: 2, ...options }));
export const Int = (description?: string) => T.Integer(description ? { description } : {});
export const Id = (prefix: string) => T.String({ pattern: `^${prefix}` });
export const Time = T.String({ format: "date-time" });
export const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
/** A union of string literals whose TypeScript type keeps each literal (a plain map would widen them to string). */
export const oneOf = <const L extends readonly string[]>(values: L) => T.Union(values.map((value) => T.Literal(value)) as TLiteral<L[number]>[]);

export const Street = oneOf(["preflop", "flop", "turn", "river"]);
export const ActionName = oneOf(["fold", "check", "call", "raise"]);
