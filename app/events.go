package app

import (
	"slices"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/facts"
	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/prompt"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/usage"
)

// Events are the event types a chat publishes on the bus that hooks can
// observe (the window's own ollama:status and model:pull-progress are not
// published there; bus:subscriber-failed is not given to hooks, so a
// failing hook cannot feed on its own failures).
var Events = []agent.Type{
	agent.TypeRunStarted, agent.TypeThinking, agent.TypeToken, agent.TypeToolCall, agent.TypeToolResult,
	agent.TypeResponse, agent.TypeSentBack, agent.TypeError, agent.TypeRunEnded, agent.TypeModelLoading, agent.TypeModelLoaded,
	approval.TypeRequested, approval.TypeDecided,
	agentmem.TypeLearned, agentmem.TypeUpdated, agentmem.TypeRecalled, agentmem.TypeForgotten, agentmem.TypeDeclined,
	facts.TypeUpdated, instructions.TypeLoaded, prompt.TypeCompacted, usage.TypeUpdated,
	TypeMCPServer, TypeToolProgress, TypeHookRunning, TypeToolQuestion, TypeToolAnswered, TypeToolSampled, TypeHookJudged, metrics.TypeRecorded, TypeFilesRestored,
	session.TypeReplaced,
}

// KnownEvent reports whether the harness publishes events of that type.
func KnownEvent(t string) bool { return slices.Contains(Events, agent.Type(t)) }
