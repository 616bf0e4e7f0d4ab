// parse-prometheus-text-format ships no types: what the metrics test reads of its answer.
declare module 'parse-prometheus-text-format' {
  export default function parse(text: string): unknown[]
}
