# Input: shfmt --tojson of one shell script. Output: "LINE NAME" for each
# literal word in command position, following the prefix commands below to
# the command they run ("timeout 5 foo" gives timeout and foo; "$sudo foo"
# gives foo; "command -v foo" gives nothing).
def lit: if (.Parts | length) == 1 and .Parts[0].Type == "Lit" then .Parts[0].Value else null end;
def is_sudo_var: (.Parts | length) == 1 and .Parts[0].Type == "ParamExp" and .Parts[0].Param.Value == "sudo";
def prefixes: ["exec", "command", "timeout", "env", "nice", "nohup", "setsid", "sudo", "xargs", "flock",
               "unshare", "setpriv", "chroot", "stdbuf", "ionice", "taskset", "valgrind"];
def walk_args($args; $i):
  if $i >= ($args | length) then empty
  else ($args[$i] | lit) as $w
  | if $w == null then (if $i == 0 and ($args[0] | is_sudo_var) then walk_args($args; 1) else empty end)
    elif $i > 0 and ($w | test("^(-.*|[0-9.]+[smhd]?|[A-Za-z_][A-Za-z0-9_]*=.*)$")) then walk_args($args; $i + 1)
    elif $w == "command" and (($args[$i + 1] // {} | lit // "") | test("^-[vV]")) then empty
    else "\($args[$i].Pos.Line) \($w)", (if prefixes | index([$w]) then walk_args($args; $i + 1) else empty end)
    end
  end;
def funcs: [.. | objects | select(.Type? == "FuncDecl") | .Name.Value];
# "F NAME" for each function the script defines, "C LINE NAME" for each command.
(funcs[] | "F \(.)"),
(.. | objects | select(has("Args") and (.Args | type) == "array" and (.Args | length) > 0)
 | walk_args(.Args; 0) | "C \(.)")
