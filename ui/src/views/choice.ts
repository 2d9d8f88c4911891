// A question for the person. Clicking a choice sends one call: the card's
// own tool (decide_in_card) with the answer and the one-time token the
// server sent the card, which binds the answer (recorded as clicked) and
// returns what the question's tool returns with it; the card shows that
// and tells the conversation what was chosen. A host that cannot call the
// card's own tool (or gave no token) gets the same answer through the
// question's tool, with the same arguments and the answer appended
// (recorded as relayed).

import { CLICK_TOOL, Ctx, ToolResult, isRefusal, textOf } from "../ctx";
import type { ChooseSendingSourceResult, ProposeEmailResult } from "../generated/types";
import { h, icon, uid } from "../dom";
import { button, card, notice } from "../ui";

/** A question comes from any tool that asks (their results share these fields). */
export type ChoiceData = ChooseSendingSourceResult | ProposeEmailResult;

export function choiceView(d: ChoiceData, ctx: Ctx): HTMLElement {
  const errorBox = h("div", { "aria-live": "polite" });
  const questionId = uid("q");

  async function answer(answerValue: string, said: string, pressed?: HTMLButtonElement): Promise<void> {
    errorBox.replaceChildren();
    pressed?.setAttribute("aria-pressed", "true");
    const token = d.card ? ctx.token(d.card) : undefined;
    let result: ToolResult | undefined;
    let clicked = false;
    if (token) {
      // A host without app-only tools answers without VibeSell's refusal
      // code: the answer then goes the assistant's way below.
      try {
        result = await ctx.call(CLICK_TOOL, { card: d.card, answer: answerValue, token });
        if (result.isError && !isRefusal(result)) result = undefined;
      } catch {
        result = undefined;
      }
      const sc = result?.structuredContent as { kind?: string; sending?: Record<string, unknown> | null; email?: Record<string, unknown> | null } | undefined;
      const answered = sc?.kind === "card_decision" ? (sc.sending ?? sc.email) : undefined;
      if (result && answered) {
        result = { ...result, structuredContent: answered };
        clicked = true;
      }
    }
    if (!result) {
      const args: Record<string, unknown> = { ...(d.arguments ?? {}) };
      args.answers = [...(d.answers ?? []), { card: d.card, answer: answerValue }];
      try {
        result = await ctx.call(d.tool, args);
      } catch {
        pressed?.setAttribute("aria-pressed", "false");
        errorBox.replaceChildren(
          notice("bad", "alert", h("p", null, "Your answer could not be sent from this card. Tell the assistant your answer instead: ", h("strong", null, said), ".")),
        );
        return;
      }
    }
    if (result.isError || !result.structuredContent) {
      pressed?.setAttribute("aria-pressed", "false");
      errorBox.replaceChildren(notice("bad", "alert", h("p", null, textOf(result) || "VibeSell did not accept this answer.")));
      return;
    }
    ctx.show(result, clicked ? `Answered by your click: ${said}` : `Answered: ${said}`);
    // Best effort: hosts do not always pass it on to the model, and the
    // answer is already bound on the server by the call above.
    void ctx.say(`For “${d.question}” I chose: ${said}`);
  }

  const choices = d.choices ?? [];
  const list = h(
    "div",
    { class: "choices", role: "group", "aria-labelledby": questionId },
    ...choices.map((c) => {
      // The label names the button; the description is read after it.
      const labelId = uid("choice");
      const descId = c.description ? uid("desc") : null;
      const b = button(
        [h("span", { class: "label", id: labelId }, c.label), c.description ? h("span", { class: "desc", id: descId }, c.description) : null],
        (btn) => answer(c.id, c.label, btn),
        { variant: "choice", after: icon("arrow") },
      );
      b.setAttribute("aria-labelledby", labelId);
      if (descId) b.setAttribute("aria-describedby", descId);
      b.setAttribute("aria-pressed", "false");
      return b;
    }),
  );

  let free: HTMLElement | null = null;
  if (d.allowFreeText) {
    const inputId = uid("free");
    const input = h("textarea", { id: inputId, rows: 2, maxlength: 1000, placeholder: "Type your answer" });
    const send = button(
      "Send answer",
      () => {
        const text = input.value.trim();
        if (!text) {
          errorBox.replaceChildren(notice("warn", "info", h("p", null, "Type an answer first, or pick one of the choices.")));
          input.focus();
          return undefined;
        }
        return answer(text, text);
      },
      { variant: "primary" },
    );
    free = h(
      "div",
      { class: "free" },
      h("div", { class: "field" }, h("label", { for: inputId }, choices.length ? "Or answer in your own words" : "Your answer"), input),
      h("div", { class: "actions" }, send),
    );
  }

  const c = card({
    label: "Question",
    icon: "question",
    title: d.question,
    lede: d.reason,
    body: [list, free, errorBox],
  });
  c.querySelector("h1")?.setAttribute("id", questionId);
  c.setAttribute("aria-labelledby", questionId);
  return c;
}
