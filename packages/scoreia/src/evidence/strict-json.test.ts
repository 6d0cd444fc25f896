import { describe, expect, it } from "vitest";
import { DuplicateMemberError, firstDuplicate, parseStrictJson } from "./strict-json.ts";

// The duplicate-member scan skips strings with indexOf and decodes a name only when it holds an
// escape: escapes, quotes and structural characters inside strings must not mislead it.
describe("firstDuplicate", () => {
  it.each([
    ['{"a":1,"b":2}', null],
    ['{"a":1,"a":2}', "a"],
    ['{"a":{"a":1},"b":[{"a":1},{"a":2}]}', null],
    ['{"a":[{"x":1,"x":2}]}', "x"],
    ['{"a":"}{,\\"a\\":","b":1}', null],
    ['{"a\\\\":1,"a":2}', null],
    ['{"a\\\\":1,"a\\\\":2}', "a\\"],
    ['{"\\u0061":1,"a":2}', "a"],
    ['{"q\\"":1,"q\\u0022":2}', 'q"'],
    ['["a","a",{"k":"\\\\\\"","k2":"\\\\"}]', null],
    ['{"k":"\\\\","k":1}', "k"],
    ['  { "s" : "x" , "s" : "y" }  ', "s"],
    ['"a"', null],
    ["[1,2,3]", null],
  ])("%s → %s", (text, dup) => {
    JSON.parse(text); // every case is valid JSON
    expect(firstDuplicate(text)).toBe(dup);
  });

  it("parseStrictJson refuses a duplicate and names it", () => {
    expect(() => parseStrictJson('{"verdict":"failed","verdict":"solved"}')).toThrow(DuplicateMemberError);
    expect(() => parseStrictJson('{"verdict":"failed","verdict":"solved"}')).toThrow(/duplicate member name "verdict"/);
    expect(parseStrictJson('{"a":{"b":"\\"b\\""}}')).toEqual({ a: { b: '"b"' } });
  });
});
