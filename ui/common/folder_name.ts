/** The last segment of a folder path: the name a person knows the project by. */
export function folderName(path: string): string {
  const parts = path.split("/").filter((part) => part !== "");
  return parts.at(-1) ?? path;
}
