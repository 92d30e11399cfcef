/** What threading needs of one message. */
export interface ThreadLinks {
  /** The message's own id: its Message-ID, or a name of its file when it has none. */
  node: string;
  /** The message it replies to. */
  parent: string | null;
  /** The conversation's first message, from References. */
  root: string | null;
}

/**
 * Groups messages into conversations the way JWZ threading links them: a message joins the
 * message it replies to and the first message its References name, whether or not those are
 * in the Maildir (a missing message still links the replies that name it). Subjects are not
 * compared: two conversations that only share a subject stay apart.
 *
 * @returns The groups, each the indexes of its messages in `messages`, in ascending order;
 *   groups ordered by their first index.
 */
export function threadMessages(messages: ThreadLinks[]): number[][] {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    let at = id;
    for (let next = parent.get(at); next !== undefined && next !== at; next = parent.get(at)) {
      const up = parent.get(next);
      if (up !== undefined) parent.set(at, up); // halve the path as we go
      at = next;
    }
    return at;
  };
  const join = (a: string, b: string) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  for (const message of messages) {
    if (!parent.has(message.node)) parent.set(message.node, message.node);
    for (const link of [message.parent, message.root]) {
      if (link === null || link === message.node) continue;
      if (!parent.has(link)) parent.set(link, link);
      join(message.node, link);
    }
  }
  const groups = new Map<string, number[]>();
  messages.forEach((message, i) => {
    const root = find(message.node);
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [i]);
  });
  return [...groups.values()].sort((a, b) => a[0] - b[0]);
}
