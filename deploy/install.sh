#!/bin/sh
# Install or upgrade the table controller from this unpacked artefact, without network access:
#   sudo ./install.sh            (docs/install.md; ./install.sh --help for the options)
# Roll back to the previous version:  sudo /opt/table-controller/rollback
exec "${PYTHON:-python3}" "$(dirname "$0")/install.py" "$@"
