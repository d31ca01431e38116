package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// baselineFigures are what the netcdf-c baseline (baseline/baseline.c) measured.
type baselineFigures map[string]float64

// buildBaseline compiles baseline/baseline.c against netcdf-c (nc-config) into dir.
func buildBaseline(dir string) (string, error) {
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "baseline", "baseline.c")
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
func runBaseline(cfg *config, args ...string) (baselineFigures, error) {
	if cfg.baseline == "" {
		bin, err := buildBaseline(cfg.dir)
		if err != nil {
			return nil, err
		}
		cfg.baseline = bin
	}
	cmd := exec.Command(cfg.baseline, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("baseline %v: %w", args, err)
	}
	figs := baselineFigures{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("baseline printed %q", line)
		}
		figs[k] = f
	}
	return figs, nil
}
