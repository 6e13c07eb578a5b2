// Drives one approval through an AG-UI endpoint with the official JavaScript client (@ag-ui/client), as a UI
// would: run, receive the interrupt, answer it, run again. tests/test_agui_interop.py starts the endpoint, runs
// this script and judges what it prints.
//
// Usage: node drive_approval.mjs <endpoint-url> <thread-id> <user-text>
//
// Protocol with the test, one JSON object per line:
//   stdout {"phase": "interrupted", ...}  after the first run; the script then waits for one line on stdin
//   stdin  {"approved": true|false}        the decision for every open interrupt (the test moves its scripted
//                                          model to the next turn before sending it)
//   stdout {"phase": "finished", ...}     after the resumed run
//   stdout {"phase": "failed", "error": "..."} on any failure, with exit code 1
import { createInterface } from "node:readline";
import { HttpAgent } from "@ag-ui/client";

function report(line) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

// Every event the client delivers to its subscribers, in order: what a UI built on the client would see.
function recorder() {
  const events = [];
  return {
    events,
    subscriber: {
      onEvent({ event }) {
        events.push(structuredClone(event));
      },
    },
  };
}

async function readDecision() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return JSON.parse(line);
  }
  throw new Error("stdin closed before the test sent the decision");
}

async function main() {
  const [url, threadId, userText] = process.argv.slice(2);
  if (!url || !threadId || userText === undefined) {
    throw new Error("usage: node drive_approval.mjs <endpoint-url> <thread-id> <user-text>");
  }
  const agent = new HttpAgent({
    url,
    threadId,
    initialMessages: [{ id: "user-1", role: "user", content: userText }],
  });

  const first = recorder();
  await agent.runAgent({ runId: "run-1" }, first.subscriber);
  const interrupts = structuredClone(agent.pendingInterrupts);
  report({ phase: "interrupted", events: first.events, interrupts, messages: agent.messages });
  if (interrupts.length === 0) {
    throw new Error("the first run finished without an interrupt to answer");
  }

  const decision = await readDecision();
  if (typeof decision.approved !== "boolean") {
    throw new Error(`the decision line must carry a boolean "approved": ${JSON.stringify(decision)}`);
  }
  // The protocol's answer to an interrupt: a resume entry per open interrupt, resolved with the payload its
  // responseSchema asks for.
  const resume = interrupts.map((interrupt) => ({
    interruptId: interrupt.id,
    status: "resolved",
    payload: { approved: decision.approved },
  }));
  const second = recorder();
  await agent.runAgent({ runId: "run-2", resume }, second.subscriber);
  report({
    phase: "finished",
    events: second.events,
    resume,
    interrupts: agent.pendingInterrupts,
    messages: agent.messages,
  });
}

main().catch((error) => {
  report({ phase: "failed", error: String(error?.stack ?? error) });
  process.exitCode = 1;
});
