#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/tests/apps-user.sh - apps.sh as an ordinary user would run
# them: every program as nobody, against a usched with the shipped
# usched.conf (issue 42: their OpenCL C source is served, in a context of
# the user's own), the same output and every kernel captured.
cd "$(dirname "$0")/../../.." || exit 1
TQCL_USER=${TQCL_USER:-nobody} exec libtq/layer/tests/apps.sh
