import { describe, expect, it } from 'vitest';
import { answerFromText } from '../../../../src/slack/answer/resume-from-slack.js';
import { isCancel, messageText, threadIdOf } from '../../../../src/slack/thread/handle-message.js';

const options = [{ label: 'Staging' }, { label: 'Production' }, { label: 'Dev, local' }];

describe('answerFromText', () => {
  it('passes free text through', () => {
    expect(answerFromText({ question: 'Name?' }, 'Blue Falcon')).toBe('Blue Falcon');
  });
  it('matches a label in any case, or its number, for single select', () => {
    expect(answerFromText({ question: 'Env?', options, selectionMode: 'single_select' }, ' production ')).toBe('Production');
    expect(answerFromText({ question: 'Env?', options, selectionMode: 'single_select' }, '1')).toBe('Staging');
    expect(answerFromText({ question: 'Env?', options, selectionMode: 'single_select' }, 'qa')).toBe('qa');
  });
  it('splits on commas for multi select, but keeps a label that itself has a comma', () => {
    expect(answerFromText({ question: 'Envs?', options, selectionMode: 'multi_select' }, 'staging, 2')).toEqual(['Staging', 'Production']);
    expect(answerFromText({ question: 'Envs?', options, selectionMode: 'multi_select' }, 'dev, local')).toEqual(['Dev, local']);
  });
  it('names each option once for multi select, however often it is typed', () => {
    expect(answerFromText({ question: 'Envs?', options, selectionMode: 'multi_select' }, '1, staging, 1, Production, 2')).toEqual(['Staging', 'Production']);
  });
});

describe('messageText', () => {
  it("removes the bot's mention and unescapes what Slack escaped", () => {
    expect(messageText('<@U0BOT> delete  a &amp; b &lt;x&gt;', 'U0BOT')).toBe('delete a & b <x>');
  });
  it('recognises cancel and builds thread ids', () => {
    expect(isCancel(' Cancel! ')).toBe(true);
    expect(isCancel('cancel the deploy')).toBe(false);
    expect(threadIdOf('C1', '123.4')).toBe('C1:123.4');
    expect(threadIdOf('D1', undefined)).toBe('D1');
  });
});
