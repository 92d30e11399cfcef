import assert from "node:assert/strict";
import { jsonRpcLines } from "../../runtime/agents/json_rpc_lines.ts";

/** Runs `chunks` through the filter; answers the lines kept, as text, and the noise. */
async function filter(
  chunks: Uint8Array[],
  maxLineBytes = 1024,
): Promise<{ kept: string[]; noise: string[] }> {
  const noise: string[] = [];
  const out = jsonRpcLines(ReadableStream.from(chunks), {
    onNoise: (line) => noise.push(line),
    maxLineBytes,
    maxNoiseChars: 60,
  });
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of out) text += decoder.decode(chunk, { stream: true });
  return { kept: text.split("\n").slice(0, -1), noise };
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("`jsonRpcLines()` keeps JSON-RPC lines and sets the rest aside", async (t) => {
  await t.step("messages pass whole, each ending in a newline; others are noise", async () => {
    const message = '{"jsonrpc":"2.0","method":"session/update","params":{}}';
    const { kept, noise } = await filter([
      encode(`Starting agent v1\n${message}\n\n  \n[1]\n{"id":1}\n`),
      encode(`{"jsonrpc":"1.0","id":2}\n${message}`),
    ]);
    assert.deepEqual(kept, [message, message]);
    assert.deepEqual(noise, ["Starting agent v1", "[1]", '{"id":1}', '{"jsonrpc":"1.0","id":2}']);
  });
  await t.step("a character split across reads stays whole", async () => {
    const message = '{"jsonrpc":"2.0","id":1,"result":{"text":"héllo ✓"}}\n';
    const bytes = encode(message);
    const at = bytes.indexOf(0xe2) + 1; // inside the three bytes of ✓
    const { kept } = await filter([bytes.slice(0, at), bytes.slice(at)]);
    assert.deepEqual(kept, [message.trimEnd()]);
    assert.equal(JSON.parse(kept[0]).result.text, "héllo ✓");
  });
  await t.step("a line longer than the limit is noise, and what follows is read", async () => {
    const message = '{"jsonrpc":"2.0","id":3,"result":{}}';
    const { kept, noise } = await filter([
      encode(`{"jsonrpc":"2.0","id":2,"result":"${"x".repeat(200)}`),
      encode(`${"y".repeat(200)}"}\n${message}\n`),
    ], 100);
    assert.deepEqual(kept, [message]);
    assert.deepEqual(noise, ["(a line of more than 100 bytes, left out)"]);
  });
  await t.step("a long noise line is cut", async () => {
    const { noise } = await filter([encode(`${"z".repeat(500)}\n`)]);
    assert.equal(noise.length, 1);
    assert.ok(noise[0].length <= 60);
    assert.match(noise[0], /^z+… \[cut: \d+ more characters\]$/);
  });
});
