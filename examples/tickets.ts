/**
 * The example's ticket system: an in-memory stand-in for the tracker a team
 * already has (Jira, Linear, GitHub issues). Each function is what a real
 * client call would be; swap them for yours.
 */
export interface Ticket {
  id: number;
  title: string;
  status: 'open' | 'closed';
  assignee: string | null;
}

const tickets = new Map<number, Ticket>([
  [101, { id: 101, title: 'Checkout page times out under load', status: 'open', assignee: 'alice' }],
  [102, { id: 102, title: 'Refund email has the wrong currency', status: 'open', assignee: null }],
  [103, { id: 103, title: 'Old API keys still work after rotation', status: 'open', assignee: 'bob' }],
]);
let nextId = 104;

export function findTicket(id: number): Ticket | undefined {
  return tickets.get(id);
}

export function openTickets(): Ticket[] {
  return [...tickets.values()].filter((t) => t.status === 'open');
}

export function createTicket(title: string): Ticket {
  const ticket: Ticket = { id: nextId++, title, status: 'open', assignee: null };
  tickets.set(ticket.id, ticket);
  return ticket;
}

/** Closes a ticket; closing one that is already closed is not an error, just nothing to do. */
export function closeTicket(id: number): Ticket {
  const ticket = tickets.get(id);
  if (!ticket) throw new Error(`no ticket #${id}`);
  ticket.status = 'closed';
  return ticket;
}
