//! A scenario file's MG script under load: each call runs the script
//! once through [`megaco_stack::scenario::Script`], which fills in the
//! variables, judges each reply against its step (`expect`, `error`,
//! `contains`) and saves what later steps use (`save`), exactly as
//! `megaco mg --scenario` does.
//!
//! What is the same in every call is prepared once: a `send` step without
//! variables is parsed once and written from a per-gateway template (its
//! transaction id patched); a step with variables is filled in, parsed
//! and encoded for each call.

use std::sync::Arc;

use megaco::model::ActionRequest;
use megaco_stack::scenario::{Next, Scenario, Script, Step};

/// The script and what it shares between calls.
#[derive(Debug)]
pub(super) struct Plan {
    steps: Arc<[Step]>,
    /// The actions of each `send` step without variables, parsed once.
    fixed: Vec<Option<Vec<ActionRequest>>>,
    /// Registration first, and its reason.
    pub register: bool,
    pub reason: String,
}

/// What the current step of a call asks for.
pub(super) enum Now {
    /// A request whose actions are the same every call: step `pos`'s
    /// template.
    Fixed(usize),
    /// A request of these actions, filled in for this call.
    Send(Vec<ActionRequest>),
    /// Nothing for this long.
    Wait(std::time::Duration),
    /// The call is over (every step passed).
    Done,
    /// The step cannot be run (a variable no reply gave).
    Failed(String),
}

impl Plan {
    pub(super) fn new(scenario: &Scenario) -> Plan {
        let fixed = scenario
            .steps
            .iter()
            .map(|step| match step {
                Step::Send(s) if !s.actions.contains("${") => {
                    match Script::new(vec![step.clone()]).next_step() {
                        Ok(Next::Send { actions, .. }) => Some(actions),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        Plan {
            steps: scenario.steps.clone().into(),
            fixed,
            register: scenario.mg.register,
            reason: scenario.mg.reason.clone(),
        }
    }

    /// A call's script, at its first step.
    pub(super) fn script(&self) -> Script {
        Script::new(self.steps.clone())
    }

    /// How many steps a call has.
    pub(super) fn len(&self) -> usize {
        self.steps.len()
    }

    /// The parsed actions of step `pos`, if the same in every call.
    pub(super) fn fixed(&self, pos: usize) -> Option<&[ActionRequest]> {
        self.fixed.get(pos)?.as_deref()
    }

    /// Where `script` stands and what it asks for.
    pub(super) fn now(&self, script: &mut Script) -> Now {
        let pos = script.passed() as usize;
        if pos >= self.steps.len() {
            return Now::Done;
        }
        if self.fixed[pos].is_some() {
            return Now::Fixed(pos);
        }
        match script.next_step() {
            Ok(Next::Send { actions, .. }) => Now::Send(actions),
            Ok(Next::Wait(d)) => Now::Wait(d),
            Ok(Next::Done) => Now::Done,
            // Refused when the scenario was loaded.
            Ok(Next::Receive { .. }) => Now::Failed("a receive step".into()),
            Err(f) => Now::Failed(f.to_string()),
        }
    }

    /// Whether `script` has run every step.
    pub(super) fn finished(&self, script: &Script) -> bool {
        script.passed() as usize >= self.steps.len()
    }
}
