# placeholder: the mdadm build (tools/mdadm)
mdadm:
