import { BOT, dmChannelOf, findChannel, findUser, type SandboxChannel } from '../workspace.js';
import { SlackApiError, reqString, type Args } from '../../simulator/index.js';

/** The channel an argument names; a user id means the DM with that person, as on Slack. */
export function channelArg(args: Args, key = 'channel'): SandboxChannel {
  const id = reqString(args, key, 'channel_not_found');
  const channel = findChannel(/^[UW][A-Z0-9]+$/.test(id) ? dmChannelOf(id) : id);
  if (!channel) throw new SlackApiError('channel_not_found');
  return channel;
}

export function userArg(args: Args, key = 'user'): string {
  const id = reqString(args, key, 'user_not_found');
  if (id !== BOT.userId && !findUser(id)) throw new SlackApiError('user_not_found');
  return id;
}
