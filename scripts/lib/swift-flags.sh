# Sourced by the scripts that build with SwiftPM or run what it built: sets `swift_flags`, the flags
# every `swift build` and `swift test` of the run takes. None by default: the usual .build. .ci/run
# sets AUDITCTL_BUILD_FLAGS to the flags of its one build (instrumented for coverage, with the
# docs' symbol graphs, in a folder of its own), so that each stage after the build uses that build
# rather than compiling the package again with other flags.
# shellcheck shell=bash
read -r -a swift_flags <<<"${AUDITCTL_BUILD_FLAGS:-}"
