# Sourced by the A/B benchmarks (a change's effect measured like for like, the tree before and after it alternating
# on one machine): PATCH names the change, a diff of this tree (`git diff BASE > change.patch`), checked to reverse
# here. `on_tree before|after COMMAND...` runs COMMAND on the tree without the change (reversed in place, then
# applied again) or as it is; COMMAND's status is returned.
[[ -f ${PATCH:-} ]] || { echo "PATCH must name the change's diff"; exit 2; }
patch --dry-run -R -p1 -s < "$PATCH" || { echo "$PATCH does not reverse on this tree"; exit 2; }
on_tree() {
  local tree=$1 status
  shift
  [[ $tree == before ]] && { patch -R -p1 -s < "$PATCH" || return 2; }
  "$@"
  status=$?
  [[ $tree == before ]] && { patch -p1 -s < "$PATCH" || return 2; }
  return $status
}
