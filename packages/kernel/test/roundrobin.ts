/**
 * A fetch for SDK client transports that sends each request to the next of several instances,
 * as a round-robin load balancer without sticky sessions would. `hits` counts per instance.
 */
export function roundRobin(urls: string[]): { fetch: typeof fetch; hits: number[] } {
  const hits = urls.map(() => 0);
  let next = 0;
  return {
    hits,
    fetch: (_input, init) => {
      const i = next++ % urls.length;
      hits[i] = (hits[i] ?? 0) + 1;
      return fetch(urls[i] as string, init);
    },
  };
}
