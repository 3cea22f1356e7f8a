//! Game content: VPK archives, VMT materials, VTF headers, gameinfo search paths.
