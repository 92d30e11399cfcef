/**
 * The browser app's entry: renders the app into the page `serve` answers.
 * Bundled by `deno task build:ui` into `ui/dist/app.js`.
 *
 * @module
 */
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { render } from "preact";
import { App } from "./app.tsx";

render(<App />, document.getElementById("app")!);
