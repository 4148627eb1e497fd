# placeholder: guest image (tools/vm)
VM_IMAGE :=
GUEST_SCENARIOS :=
