// A minimal Go CRI client (the kubelet's own stack: google.golang.org/grpc and k8s.io/cri-api)
// that runs one pod lifecycle per "lifecycle" line on stdin (one Version call per "version", one
// ImageStatus of -image per "imagestatus") and prints each call's latency in milliseconds as one
// JSON line: the reference runner/bench/cri-client.ts compares our client with. A number after
// the command is a pause in milliseconds slept before each timed call, untimed: the idle time a
// call follows in a real lifecycle (RemoveContainer follows StopContainer's ~60 ms wait).
// Built at bench time (go build, GOFLAGS=-mod=mod); not part of the runner.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtime "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// cpuMicros is the user + system CPU time of this whole process (all threads) in microseconds.
func cpuMicros() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Sec*1e6 + ru.Utime.Usec + ru.Stime.Sec*1e6 + ru.Stime.Usec
}

func uid() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func main() {
	endpoint := flag.String("endpoint", "", "CRI socket path")
	handler := flag.String("handler", "runc", "runtime handler")
	image := flag.String("image", "", "container image")
	logDir := flag.String("log-dir", os.TempDir(), "pod log directory root")
	label := flag.String("run-label", "go-cri-bench", "value of the runtime-bench.run-id label")
	command := flag.String("command", "/bin/sleep 3600", "container command, space separated")
	flag.Parse()

	conn, err := grpc.NewClient("unix://"+strings.TrimPrefix(*endpoint, "unix://"),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	rt := runtime.NewRuntimeServiceClient(conn)
	img := runtime.NewImageServiceClient(conn)
	labels := map[string]string{"runtime-bench.run-id": *label, "runtime-bench.purpose": "go-cri"}
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		ms := map[string]float64{}
		fields := strings.Fields(in.Text())
		if len(fields) == 0 {
			continue
		}
		var pause time.Duration
		if len(fields) > 1 {
			p, err := strconv.ParseFloat(fields[1], 64)
			if err != nil {
				_ = out.Encode(map[string]any{"error": "bad pause: " + err.Error()})
				continue
			}
			pause = time.Duration(p * float64(time.Millisecond))
		}
		if fields[0] == "version" || fields[0] == "imagestatus" {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			time.Sleep(pause)
			cpu0 := cpuMicros()
			t := time.Now()
			var err error
			name := "Version"
			if fields[0] == "version" {
				_, err = rt.Version(ctx, &runtime.VersionRequest{Version: "v1"})
			} else {
				name = "ImageStatus"
				_, err = img.ImageStatus(ctx, &runtime.ImageStatusRequest{Image: &runtime.ImageSpec{Image: *image}})
			}
			ms[name] = float64(time.Since(t).Nanoseconds()) / 1e6
			cpu := cpuMicros() - cpu0
			cancel()
			res := map[string]any{"ms": ms, "cpuMicros": cpu}
			if err != nil {
				res["error"] = err.Error()
			}
			_ = out.Encode(res)
			continue
		}
		if fields[0] != "lifecycle" {
			continue
		}
		timed := func(name string, f func(ctx context.Context) error) error {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			time.Sleep(pause)
			t := time.Now()
			err := f(ctx)
			ms[name] = float64(time.Since(t).Nanoseconds()) / 1e6
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		}
		id := uid()
		pod := &runtime.PodSandboxConfig{
			Metadata:     &runtime.PodSandboxMetadata{Name: "rb-go-" + id[:6], Uid: id, Namespace: "runtime-bench"},
			Hostname:     "rb-go",
			LogDirectory: filepath.Join(*logDir, id),
			Labels:       labels,
			Linux: &runtime.LinuxPodSandboxConfig{SecurityContext: &runtime.LinuxSandboxSecurityContext{
				NamespaceOptions: &runtime.NamespaceOption{Pid: runtime.NamespaceMode_CONTAINER},
			}},
		}
		ctr := &runtime.ContainerConfig{
			Metadata: &runtime.ContainerMetadata{Name: "sleeper"},
			// The request our client sends (cri/types.ts asKubeletSends): the kubelet's
			// UserSpecifiedImage and the pod's PID namespace mode repeated on the container, so both
			// clients ask the runtime for the same work.
			Image:   &runtime.ImageSpec{Image: *image, UserSpecifiedImage: *image},
			Command: strings.Fields(*command),
			LogPath: "sleeper-" + id[:8] + ".log",
			Labels:  labels,
			Linux: &runtime.LinuxContainerConfig{SecurityContext: &runtime.LinuxContainerSecurityContext{
				NamespaceOptions: &runtime.NamespaceOption{Pid: runtime.NamespaceMode_CONTAINER},
			}},
		}
		var podID, ctrID string
		err := timed("RunPodSandbox", func(ctx context.Context) error {
			r, err := rt.RunPodSandbox(ctx, &runtime.RunPodSandboxRequest{Config: pod, RuntimeHandler: *handler})
			if err == nil {
				podID = r.PodSandboxId
			}
			return err
		})
		if err == nil {
			err = timed("CreateContainer", func(ctx context.Context) error {
				r, err := rt.CreateContainer(ctx, &runtime.CreateContainerRequest{PodSandboxId: podID, Config: ctr, SandboxConfig: pod})
				if err == nil {
					ctrID = r.ContainerId
				}
				return err
			})
		}
		steps := []struct {
			name string
			f    func(ctx context.Context) error
		}{
			{"StartContainer", func(ctx context.Context) error {
				_, err := rt.StartContainer(ctx, &runtime.StartContainerRequest{ContainerId: ctrID})
				return err
			}},
			{"StopContainer", func(ctx context.Context) error {
				_, err := rt.StopContainer(ctx, &runtime.StopContainerRequest{ContainerId: ctrID, Timeout: 0})
				return err
			}},
			{"RemoveContainer", func(ctx context.Context) error {
				_, err := rt.RemoveContainer(ctx, &runtime.RemoveContainerRequest{ContainerId: ctrID})
				return err
			}},
			{"StopPodSandbox", func(ctx context.Context) error {
				_, err := rt.StopPodSandbox(ctx, &runtime.StopPodSandboxRequest{PodSandboxId: podID})
				return err
			}},
			{"RemovePodSandbox", func(ctx context.Context) error {
				_, err := rt.RemovePodSandbox(ctx, &runtime.RemovePodSandboxRequest{PodSandboxId: podID})
				return err
			}},
		}
		for _, s := range steps {
			if err != nil {
				break
			}
			err = timed(s.name, s.f)
		}
		if err != nil && podID != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			_, _ = rt.StopPodSandbox(ctx, &runtime.StopPodSandboxRequest{PodSandboxId: podID})
			_, _ = rt.RemovePodSandbox(ctx, &runtime.RemovePodSandboxRequest{PodSandboxId: podID})
			cancel()
		}
		res := map[string]any{"ms": ms}
		if err != nil {
			res["error"] = err.Error()
		}
		_ = out.Encode(res)
	}
}
