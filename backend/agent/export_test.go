package agent

// Promises is promises, for the external tests.
var Promises = promises

// PromiseLists is promises.json as read.
func PromiseLists() (openers map[string][]string, closings []string) {
	return promiseData.Openers, promiseData.Closings
}
