/** A pure state machine: one event gives the next state and the effects to carry out. */
export type Machine<State, Event, Effect> = (state: State, event: Event) => { state: State; effects: Effect[] }

/** Runs events through a machine from `from`; returns the final state and every effect in order. */
export function replay<State, Event, Effect>(
  machine: Machine<State, Event, Effect>,
  from: State,
  events: readonly Event[],
): { state: State; effects: Effect[] } {
  let state = from
  const effects: Effect[] = []
  for (const event of events) {
    const next = machine(state, event)
    state = next.state
    effects.push(...next.effects)
  }
  return { state, effects }
}
