// expect: is unavailable: record in code with NewSession(recordedInCode: name, delegate: delegateName)
import AuditCore

let session = NewSession(name: "knob", scenario: "knob", scenarioSource: "{}", delegate: "v1")
