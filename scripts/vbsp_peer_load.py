"""Open each BSP with srctools, bsp_tool and valvebsp; print one line per file and reader.
Exit status 1 if any reader failed on any file."""
import sys, traceback

def with_srctools(path):
    from srctools.bsp import BSP
    b = BSP(path)
    return f'{len(b.faces)} faces, {len(b.brushes)} brushes, {sum(1 for _ in b.vis_tree().iter_leafs())} leaves'

def with_bsp_tool(path):
    import bsp_tool
    b = bsp_tool.load_bsp(path)
    return f'{type(b).__name__} {len(getattr(b, "FACES", []))} faces, {len(getattr(b, "LEAVES", []))} leaves'

def with_valvebsp(path):
    from valvebsp import Bsp
    b = Bsp(path)
    return f'{len(b[7])} faces, {len(b[10])} leaves'

failed = False
for path in sys.argv[1:]:
    for name, fn in [('srctools', with_srctools), ('bsp_tool', with_bsp_tool), ('valvebsp', with_valvebsp)]:
        try:
            print(f'{path}\t{name}\tok\t{fn(path)}')
        except Exception as e:
            failed = True
            print(f'{path}\t{name}\tFAILED\t{type(e).__name__}: {e}')
sys.exit(1 if failed else 0)
