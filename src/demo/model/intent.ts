export type Environment = 'staging' | 'production';

/** What a request asks for, as far as the demo model could read it. */
export type Intent =
  | { kind: 'help' }
  | { kind: 'lookup'; ids: string[] }
  | { kind: 'delete'; ids: string[]; several: boolean }
  | { kind: 'deploy'; service?: string; environment?: Environment; version?: string }
  | { kind: 'refund'; orderId?: string; amountCents?: number; reason?: string }
  | { kind: 'regions'; regions?: string[] }
  /** A reply that could not be used; said as is, never retried on a guess. */
  | { kind: 'problem'; text: string }
  /** An answer to a question this model cannot place (another model asked it, say). */
  | { kind: 'answered'; question: string; answer: unknown };
