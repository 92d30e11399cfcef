/**
 * Whether the account path is a calendar file: a `.ics` file (any case) whose name and folders
 * are not hidden (vdirsyncer keeps its status beside the calendars, and editors leave `.#x.ics`).
 */
export function calendarFile(path: string): boolean {
  const parts = path.split("/");
  if (parts.some((part) => part.startsWith("."))) return false;
  return /\.ics$/i.test(parts[parts.length - 1]);
}
