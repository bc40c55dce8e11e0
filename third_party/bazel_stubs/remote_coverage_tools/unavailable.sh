#!/bin/sh
echo "coverage tools are not available in edgeq's offline build" >&2
exit 1
