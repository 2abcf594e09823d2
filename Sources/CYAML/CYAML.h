// libyaml (Debian libyaml-dev), the YAML 1.1 parser behind `mockd import-openapi` and `--openapi` for YAML specs.
// Swift calls its event API directly; nothing else belongs here.
#include <yaml.h>
