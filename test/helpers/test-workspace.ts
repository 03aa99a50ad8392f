/**
 * The channel and people of the end-to-end tests' workspace, by the role they play: one set of
 * ids, so a test reads as who does what and two tests cannot disagree on who someone is.
 */
export const CHANNEL = 'C0CHANNEL01';
export const REQUESTER = 'U0REQUESTER';
export const ALICE = 'U0ALICE';
export const BOB = 'U0BOB';
export const CAROL = 'U0CAROL';
export const DAVE = 'U0DAVE';
export const MALLORY = 'U0MALLORY';
