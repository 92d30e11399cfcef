import assert from "node:assert/strict";
import { ByteTail } from "../../runtime/supervisor/byte_tail.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("`ByteTail` keeps the last bytes added, within its bound", async (t) => {
  await t.step("under the bound, everything, with no mark", () => {
    const tail = new ByteTail(16);
    tail.add(encode("one\n"));
    tail.add(encode("two\n"));
    assert.equal(tail.text(), "one\ntwo\n");
    assert.equal(tail.dropped, 0);
  });

  await t.step("over it, the last bytes, saying how many went", () => {
    const tail = new ByteTail(8);
    for (const chunk of ["abc", "defg", "hijkl", "m"]) tail.add(encode(chunk));
    assert.equal(new TextDecoder().decode(tail.bytes()), "fghijklm");
    assert.equal(tail.dropped, 5);
    assert.equal(tail.text(), "[5 earlier bytes not kept]\nfghijklm");
  });

  await t.step("one chunk larger than the bound keeps its end", () => {
    const tail = new ByteTail(4);
    tail.add(encode("ab"));
    tail.add(encode("0123456789"));
    assert.equal(new TextDecoder().decode(tail.bytes()), "6789");
    assert.equal(tail.dropped, 8);
  });

  await t.step("a character cut at the start is left out, not shown broken", () => {
    const tail = new ByteTail(5);
    // "é" is two bytes; the bound keeps only its second.
    tail.add(encode("xé1234"));
    assert.equal(tail.bytes().length, 5);
    assert.equal(tail.text(), "[3 earlier bytes not kept]\n1234");
  });
});
