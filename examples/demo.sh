# examples/demo.sh: what the demo session runs, in an ordinary bash.
echo "== run: uname runs in place"
uname -s
echo "== escalate: id runs outside, on this terminal"
id -un
echo "== deny: rm is refused"
rm -f /tmp/shellesc-demo-file
echo "rm exited $?"
echo "== python's subprocess is caught too (the preload)"
python3 -c 'import subprocess; print("id exited", subprocess.run(["id", "-u"]).returncode)'
