// The whatsapp module's public face: WhatsApp messages and chats.
export { whatsappCommands } from './whatsapp.cli.js'
export { seedWhatsapp } from './whatsapp.demo.js'
export { default as whatsappRoutes } from './whatsapp.routes.js'
export { WhatsappChat, WhatsappChatsPage, WhatsappMessage, WhatsappMessagesPage, WhatsappMessagesSyncPage } from './whatsapp.schemas.js'
export { messagesPage } from './whatsapp.service.js'
