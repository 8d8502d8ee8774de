'use client';

import { createContext, useContext, type ReactNode } from 'react';

// Placeholder until projects.list lands.
const ProjectContext = createContext<{ projectId: string | undefined }>({ projectId: undefined });
export function ProjectProvider({ children }: { children: ReactNode }) {
  return <ProjectContext.Provider value={{ projectId: undefined }}>{children}</ProjectContext.Provider>;
}
export const useProject = () => useContext(ProjectContext);
export function ProjectPicker() {
  return <span className="text-slate-500">Projects</span>;
}
