/**
 * The JavaScript of a run: Code nodes' jsCode and every `{{ expression }}` of a parameter, in `node:vm`
 * with n8n's helpers ($, $input, $json, $runIndex, $env, $execution) and the run's clock. A value crosses
 * out as JSON, as n8n hands items between nodes.
 */
import vm from 'node:vm';

export type Helpers = Record<string, unknown>;

/** What `$('Node')` and `$input` give: the node's items, one here (the simulator's model). */
export function items(json: unknown) {
  const item = { json };
  return { first: () => item, last: () => item, all: () => [item], item };
}

/** A Date whose `new Date()` and `Date.now()` read `now` (the run's clock). */
function clockedDate(now: () => number): DateConstructor {
  class RunDate extends Date {
    constructor(...args: []) {
      if (args.length === 0) super(now());
      else super(...(args as unknown as [number]));
    }
    static override now() {
      return now();
    }
  }
  return RunDate as DateConstructor;
}

const compiled = new Map<string, vm.Script>();

export class Sandbox {
  private readonly context: vm.Context;

  constructor(now: () => number) {
    this.context = vm.createContext({ Date: clockedDate(now) });
  }

  /** Runs `code` with `helpers` in scope; its value copied out as JSON. */
  run(code: string, helpers: Helpers): unknown {
    Object.assign(this.context, helpers);
    let script = compiled.get(code);
    if (script === undefined) {
      script = new vm.Script(code);
      compiled.set(code, script);
    }
    const value = script.runInContext(this.context, { timeout: 2000 });
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  }

  /** A parameter's value: `={{ x }}` is x itself, another `=` text a template, anything else itself. */
  parameter(value: unknown, helpers: Helpers): unknown {
    if (typeof value !== 'string' || !value.startsWith('=')) return value;
    const body = value.slice(1);
    const whole = /^\{\{([\s\S]*)\}\}$/.exec(body);
    if (whole && !whole[1]?.includes('}}')) return this.run(`(${whole[1]})`, helpers);
    return body.replace(/\{\{([\s\S]*?)\}\}/g, (_m, e: string) => {
      const v = this.run(`(${e})`, helpers);
      return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    });
  }

  /** A Code node's jsCode (run once for all items): the items it returns. */
  code(jsCode: string, helpers: Helpers): unknown {
    return this.run(`(() => {\n${jsCode}\n})()`, helpers);
  }
}
