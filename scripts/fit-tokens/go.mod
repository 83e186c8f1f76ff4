module github.com/shrimp-harness/shrimp/scripts/fit-tokens

go 1.26.8

require (
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/shrimp-harness/shrimp v0.0.0
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
)

replace github.com/shrimp-harness/shrimp => ../..
