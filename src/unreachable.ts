/**
 * The `default` of a switch that handles every member of a union: a member
 * added later without a case is a compile error here (its value is not
 * `never`), and a value that breaks the types at run time fails loudly.
 */
export function unreachable(value: never, what: string): never {
  throw new Error(`Unhandled ${what}: ${JSON.stringify(value)}`);
}
