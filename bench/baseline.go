package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildBaseline compiles baseline/baseline.c against netcdf-c (nc-config) into dir.
func buildBaseline(dir string) (string, error) {
	src := filepath.Join(benchDir(), "baseline", "baseline.c")
	flags, err := exec.Command("nc-config", "--cflags", "--libs").Output()
	if err != nil {
		return "", fmt.Errorf("nc-config (netcdf-bin / libnetcdf-dev) is needed for the baseline: %w", err)
	}
	bin := filepath.Join(dir, "baseline")
	args := append([]string{"-O2", "-o", bin, src}, strings.Fields(string(flags))...)
	args = append(args, "-lm")
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling the baseline: %v\n%s", err, out)
	}
	return bin, nil
}

// runBaseline runs one baseline case and parses its key=value lines.
func runBaseline(cfg *config, args ...string) (map[string]float64, error) {
	if cfg.baseline == "" {
		bin, err := buildBaseline(cfg.dir)
		if err != nil {
			return nil, err
		}
		cfg.baseline = bin
	}
	figs, err := keyValues(exec.Command(cfg.baseline, args...))
	if err != nil {
		return nil, fmt.Errorf("baseline %v: %w", args, err)
	}
	return figs, nil
}
