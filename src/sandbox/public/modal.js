// The modal overlay: the top view of this person's stack, its inputs, and Submit / Cancel. What
// was typed survives a views.update of the same view (as in Slack); errors from the client checks
// or the bot's `response_action: errors` are shown under their inputs.

import { renderBlocks } from './blocks.js';
import { el } from './elements.js';
import { renderPlain } from './mrkdwn.js';

function textOf(obj) {
  return obj && typeof obj === 'object' && typeof obj.text === 'string' ? obj.text : '';
}

export class ModalView {
  /** `ui`: { directory, chosen(container), act(target, blockId, element, choice, control), post(path, body), me() } */
  constructor(root, ui) {
    this.root = root;
    this.ui = ui;
    this.shownId = undefined;
    this.getters = new Map();
    this.errors = {};
    this.message = '';
    this.busy = false;
    this.stack = [];
    /** What the modal last drew (the stack's depth and its top view): drawn again only when that changes. */
    this.drawn = '';
  }

  /** Current values of the shown view's inputs, keyed like state.values. */
  values() {
    const out = {};
    for (const [key, get] of this.getters) {
      const [blockId, actionId] = JSON.parse(key);
      (out[blockId] ??= {})[actionId] = get();
    }
    return out;
  }

  /**
   * Draws the top view of `stack`. The page redraws on every change it hears of (a message in the
   * channel, say); drawing the modal again would replace its inputs under the person typing, their
   * focus back on the first one and a keystroke in flight lost, so it is redrawn only when the view
   * or the stack changed, or when `changed` says its errors did.
   */
  render(stack, changed = false) {
    this.stack = stack;
    const view = stack.at(-1);
    const drawn = view ? `${stack.length}:${JSON.stringify(view)}` : '';
    if (drawn === this.drawn && !changed) return;
    this.drawn = drawn;
    if (!view) {
      this.root.replaceChildren();
      this.shownId = undefined;
      this.getters = new Map();
      return;
    }
    const previous = view.id === this.shownId ? this.values() : {};
    if (view.id !== this.shownId) {
      this.errors = {};
      this.message = '';
    }
    this.shownId = view.id;
    this.getters = new Map();

    const overlay = el('div', 'modal-overlay');
    const dialog = el('div', 'modal');
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.dataset.viewId = view.id;
    if (view.callback_id) dialog.dataset.callbackId = view.callback_id;

    const header = el('div', 'modal-header');
    const title = el('h2', 'modal-title');
    title.append(renderPlain(textOf(view.title)));
    const close = el('button', 'modal-x', '×');
    close.type = 'button';
    close.title = 'Close';
    close.addEventListener('click', () => this.close(view));
    header.append(title, close);
    if (stack.length > 1) header.prepend(el('span', 'modal-depth', `${stack.length} / 3`));

    const ctx = {
      directory: this.ui.directory,
      containerKey: `view:${view.id}`,
      chosen: this.ui.chosen(`view:${view.id}`),
      act: (blockId, element, choice, control) => this.ui.act({ viewId: view.id, viewValues: this.values() }, blockId, element, choice, control),
      modal: {
        previous,
        errors: this.errors,
        register: (blockId, actionId, get) => this.getters.set(JSON.stringify([blockId, actionId]), get),
      },
    };
    const body = el('div', 'modal-body');
    body.append(renderBlocks(view.blocks, ctx));

    const footer = el('div', 'modal-footer');
    if (this.message) footer.append(el('div', 'modal-message', this.message));
    const cancel = el('button', 'bk-button', textOf(view.close) || 'Cancel');
    cancel.type = 'button';
    cancel.addEventListener('click', () => this.close(view));
    footer.append(cancel);
    if (view.submit) {
      const submit = el('button', 'bk-button bk-primary modal-submit', textOf(view.submit));
      submit.type = 'submit';
      footer.append(submit);
    }
    const form = el('form', 'modal-form');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit(view);
    });
    form.append(body, footer);
    dialog.append(header, form);
    overlay.append(dialog);
    overlay.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.close(view);
    });
    this.root.replaceChildren(overlay);
    dialog.querySelector('input, textarea, select')?.focus();
  }

  async submit(view) {
    if (this.busy) return;
    this.busy = true;
    this.root.querySelector('.modal')?.classList.add('busy');
    try {
      const result = await this.ui.post('/ui/view-submission', { user: this.ui.me(), viewId: view.id, values: this.values() });
      this.errors = result.errors ?? {};
      this.message = result.error ?? (result.ok === false && !result.errors ? 'Something went wrong.' : '');
      // On success the views event from the server closes or replaces the modal.
      if (!result.ok && this.shownId === view.id) this.render(this.stack, true);
    } finally {
      this.busy = false;
      this.root.querySelector('.modal')?.classList.remove('busy');
    }
  }

  async close(view) {
    await this.ui.post('/ui/view-close', { user: this.ui.me(), viewId: view.id });
  }
}
