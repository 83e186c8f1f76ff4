package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/internal/modelname"
)

// settingParams is the key prefix of a model's sampling settings in the
// settings table ("params:qwen3:latest"), by the model's canonical name.
const settingParams = "params:"

// ModelParams returns the sampling settings the user set for a model
// (none: its Modelfile's, else Ollama's, apply).
func (a *App) ModelParams(ctx context.Context, name string) (model.Params, error) {
	v, err := a.Store.Setting(ctx, settingParams+modelname.Canonical(name))
	if err != nil || v == "" {
		return model.Params{}, err
	}
	var p model.Params
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return model.Params{}, fmt.Errorf("the sampling settings kept for %s are damaged (%v): set them again with `shrimp models params %s NAME=VALUE` or in Settings", name, err, name)
	}
	return p, nil
}

// SetModelParams sets (set) and clears (unset: back to its Modelfile's)
// a model's sampling settings, keeping the others, and returns them all;
// an error names a setting out of its range before anything is kept.
func (a *App) SetModelParams(ctx context.Context, name string, set model.Params, unset []string) (model.Params, error) {
	p, err := a.ModelParams(ctx, name)
	if err != nil {
		p = model.Params{} // damaged: replaced whole
	}
	maps.Copy(p, set)
	for _, n := range unset {
		delete(p, n)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	value := ""
	if len(p) > 0 {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		value = string(b)
	}
	if err := a.Store.SetSetting(ctx, settingParams+modelname.Canonical(name), value); err != nil {
		return nil, fmt.Errorf("keep the sampling settings of %s: %w", name, err)
	}
	return p, nil
}
